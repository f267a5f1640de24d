-- Schema version 70: a model says how it is run, not only how big it is. The inference
-- derivation (transform/roofline.py) computes with the active parameters (a mixture of
-- experts uses a few of its experts per token) and holds the total ones, plus a KV cache
-- whose size per token is 2 x layers x KV heads x head dimension (one latent per layer for
-- multi-head latent attention). A user's model without a shape has these NULL.

ALTER TABLE models ADD COLUMN active_parameters DOUBLE;
ALTER TABLE models ADD COLUMN layers INTEGER;
ALTER TABLE models ADD COLUMN kv_heads INTEGER;
ALTER TABLE models ADD COLUMN head_dim INTEGER;
ALTER TABLE models ADD COLUMN attention VARCHAR;  -- gqa | mha | mla | none (an encoder)
