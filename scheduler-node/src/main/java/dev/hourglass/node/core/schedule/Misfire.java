package dev.hourglass.node.core.schedule;

/**
 * What becomes of occurrences missed while the cluster could not submit them (an outage), within
 * the schedule's catch-up window: see {@link MaterializationPlanner}.
 */
public enum Misfire {
    /** One job now for all of them (the default). */
    FIRE_ONCE,
    /** None. */
    SKIP,
    /** One job each, the newest {@link MaterializationPlanner#MAX_FIRE_ALL} at most. */
    FIRE_ALL
}
