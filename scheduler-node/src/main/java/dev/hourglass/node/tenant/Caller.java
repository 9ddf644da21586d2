package dev.hourglass.node.tenant;

/** Who calls: an app (through its token) or the admin, who acts on every app. */
public record Caller(String app, boolean isAdmin) {
    public static Caller asAdmin() {
        return new Caller(null, true);
    }

    public static Caller ofApp(String app) {
        return new Caller(app, false);
    }

    /** The app whose jobs this caller may see, or null for every app. */
    public String scope() {
        return isAdmin ? null : app;
    }
}
