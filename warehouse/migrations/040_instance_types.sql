-- The catalog's instance types and shapes: which chip, how many (a share below 1 for a
-- fractional GPU), the chip's memory and where the mapping comes from. Reference data: the
-- pipeline reseeds it from core/data when those files change, like `chips`.
CREATE TABLE instance_types (
    provider           VARCHAR NOT NULL,
    instance_type      VARCHAR NOT NULL,
    chip               VARCHAR NOT NULL,
    chip_count         DOUBLE NOT NULL,   -- chips per instance; 0.125 = 1/8 of one chip
    share              VARCHAR,           -- '1/8 of one L4' for a fractional GPU, else NULL
    memory_gb_per_chip DOUBLE,            -- the chip's memory (chips.csv), not the share's
    family             VARCHAR,
    mapping_source     VARCHAR NOT NULL,  -- the core/data file and the provider document
    PRIMARY KEY (provider, instance_type)
);
