-- restricted_region(region): whether most buyers cannot rent there (a US or UK government, a
-- China or an EU sovereign region; core/vocabulary.py RESTRICTED_REGIONS, written in as
-- {{restricted_pattern}}). Such a region is no chip's cheapest unless a read names it: the
-- cost ranking, the price index and cost's query by SQL leave it out with this one rule.
CREATE OR REPLACE MACRO restricted_region(region) AS
    regexp_matches(lower(region), {{restricted_pattern}});
