-- Every e-mail sent, per recipient, by its stable Message-ID: a report re-run (by hand or a
-- retried flow) does not send it again unless forced (docs/reports.md, "Sent once").
-- status: sending (written before the send: a process that died mid-send leaves it),
-- sent, uncertain (the server had the whole message when the connection ended), failed.
CREATE TABLE deliveries (
    message_id VARCHAR NOT NULL,
    recipient VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    subject VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    attempted_at TIMESTAMPTZ NOT NULL,
    detail VARCHAR,
    PRIMARY KEY (message_id, recipient)
);
