-- Price alerts sent to notification targets (apprise URLs), one row per alert and target a
-- day: a collection run again the same day does not send them again. The target is a digest
-- of its URL, since apprise URLs carry tokens (a Slack or Discord webhook's secret).
CREATE TABLE notifications (
    day DATE NOT NULL,
    alert_key VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    sent_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (day, alert_key, target)
);
