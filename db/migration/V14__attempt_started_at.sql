-- An attempt's execution-log row is written once, when the attempt ends (docs/design.md, "The
-- execution log"). Until then the live row tells of the attempt in flight: its number (attempts),
-- its node (owner_node), and, here, when it was sent or handed out: the planned time at the claim
-- or reservation, the real send time once the sender knows it. NULL on jobs never claimed, and on
-- attempts claimed before this column (their log row was opened at the claim).
-- Before, the claim inserted the row and the result updated it: the update was the costliest
-- statement of a pull consumer's acknowledgement (docs/performance.md, "The execution log written once").
ALTER TABLE job_delay_task ADD COLUMN started_at BIGINT NULL;
