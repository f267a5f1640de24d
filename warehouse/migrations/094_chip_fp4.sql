-- Schema version 94: the dense FP4 peak of a chip (TFLOPS, per chip, without sparsity), which
-- Blackwell, MI350X/MI355X and Trainium3 are sold on. NULL where the vendor publishes none or
-- the chip has no FP4 path (core/data/chips.csv, docs/chips.md).

ALTER TABLE chips ADD COLUMN dense_fp4_tflops DOUBLE;
