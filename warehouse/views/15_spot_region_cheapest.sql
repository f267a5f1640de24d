-- Per region, the cheapest current spot price of each instance type across its zones
-- (views/parts/cheapest_zone.sql). per_chip_prices shows each of these as a region-level row
-- (zone '', plan 'region_cheapest') beside the per-zone rows; this view also says which zone
-- it is and how far zones differ.
CREATE OR REPLACE VIEW spot_region_cheapest AS
WITH cur AS (FROM current_prices)
{{cheapest_zone}};
