-- per_chip_hour(price_per_hour, chip_count): a price per instance-hour as a price per
-- chip-hour, the one definition every view and read of the warehouse divides by. A chip
-- count of 0 or less is refused at validation (transform/validate.py), so no loaded row has
-- one; a row put in by hand with 0 chips has no per-chip price (NULL), never a division by
-- zero's infinity. A macro of the database, not of a connection: the views use it, so every
-- reader of the file (or lake) needs it, chipcost's or not.
CREATE OR REPLACE MACRO per_chip_hour(price_per_hour, chip_count) AS
    price_per_hour / nullif(chip_count, 0);
