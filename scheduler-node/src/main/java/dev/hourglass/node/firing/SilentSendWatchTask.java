package dev.hourglass.node.firing;

import dev.hourglass.node.background.PeriodicTask;

/** Ends sends whose dispatcher never answered, as TIMEOUTs, so their jobs fire again (AttemptSender#giveUpOnSilentSends). */
final class SilentSendWatchTask implements PeriodicTask {
    private final AttemptSender sender;

    SilentSendWatchTask(AttemptSender sender) {
        this.sender = sender;
    }

    @Override
    public String name() {
        return "silent-send watch";
    }

    @Override
    public void run() {
        sender.giveUpOnSilentSends();
    }
}
