package dev.hourglass.node.store.mybatis;

/** A row of job_callback_service. */
public class ServiceRow {
    public String app;
    public String name;
    public String protocol;
    public String topic;
    public String url;
    public String dubboGroup;
    public String dubboVersion;
    public int maxAttempts;
    public long timeoutMs;
    public long backoffInitialMs;
    public double backoffMultiplier;
    public long backoffMaxMs;
    public String ackMode;
    public int maxInFlight;
    public String signingSecret;
    public Integer alertFailures;
    public Integer alertWindowS;
    public String alertWebhook;
    public Integer alertConsecutive;
    public Integer alertOverdueS;
    public long createdAt;
    public long updatedAt;
    public Long pausedAt;
    public String pausedBy;
    public Long resumedAt;
    public Integer ratePerSecond;
    public Integer rateBurst;
    public String deadLetter;
    public String deadLetterOn;
}
