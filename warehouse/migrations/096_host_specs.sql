-- Schema version 96: the host an offer rents, as its source publishes it: vCPUs, memory (GB)
-- and local disk (GB; 0 where the source says the instance has none, such as AWS's "EBS
-- only"). NULL where the source publishes none; never guessed (docs/sources.md says which
-- source gives which). On the record (observations) and on each price's history row, where
-- the newest sighting of an unchanged price brings them up to date, as it does the chip.

ALTER TABLE observations ADD COLUMN vcpus DOUBLE;
ALTER TABLE observations ADD COLUMN ram_gb DOUBLE;
ALTER TABLE observations ADD COLUMN disk_gb DOUBLE;
ALTER TABLE price_history ADD COLUMN vcpus DOUBLE;
ALTER TABLE price_history ADD COLUMN ram_gb DOUBLE;
ALTER TABLE price_history ADD COLUMN disk_gb DOUBLE;
