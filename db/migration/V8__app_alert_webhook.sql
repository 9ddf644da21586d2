-- The app's default alert webhook, set by the admin (docs/alerts.md): notifications of the app's
-- services whose alert policy names no webhook of its own go there.
ALTER TABLE hg_app ADD COLUMN alert_webhook VARCHAR(2048) NULL;
