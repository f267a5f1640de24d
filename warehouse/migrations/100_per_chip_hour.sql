-- The views and reads divide a price by its chips with the macro per_chip_hour
-- (warehouse/views/00_per_chip_hour.sql). No table changes: the version moves so that a
-- reader of an older file asks for `chipcost migrate`, which creates the macro, instead of
-- failing on it.
SELECT 1;
