package dev.hourglass.api;

/**
 * Implemented and exported by business services that receive jobs over Dubbo (docs/api.md,
 * "Dubbo"). An exception thrown here, or no answer within the job's timeout, counts as RETRY.
 */
public interface JobCallbackService {
    CallbackResult execute(CallbackRequest request);
}
