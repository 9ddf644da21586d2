package dev.hourglass.node.store.mybatis;

/** An app and its default alert webhook. */
public class AppWebhookRow {
    public String app;
    public String webhook;
}
