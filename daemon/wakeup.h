// Eventfd wake-ups between the daemon's threads and its sd-event loop: one side signals, the
// loop's handler drains the counter.
#pragma once

namespace earshot::daemon {

// Wakes the loop watching `fd`. An eventfd write fails only when the counter would overflow,
// which the loop's drains prevent.
void SignalWakeup(int fd);
// Resets `fd`'s counter (non-blocking eventfd: nothing to read is not an error).
void DrainWakeup(int fd);

}  // namespace earshot::daemon
