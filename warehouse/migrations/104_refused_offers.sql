-- Schema version 104: a refused row names the offer it is a price of. A parser's reject of a
-- source whose rows carry no sku (the AWS spot feed's "$23.8843", Nebius's "ask us") named
-- nothing the withdrawal step could match, so the offer was closed as withdrawn; the reject
-- now keeps the fields of the offer's key the parser knows (core/record.py Reject.offer), as
-- JSON, and an open offer agreeing on each is not withdrawn. `chipcost remove-run` reads them
-- here to restate the history as the run was loaded (warehouse/restate.py). NULL where the
-- row names no offer, or says its offer is not sold, and for the rows refused before.

ALTER TABLE rejects ADD COLUMN offer VARCHAR;
