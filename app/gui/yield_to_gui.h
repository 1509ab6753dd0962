#pragma once
// For jobs that train or generate: when the GUI thread and such a job both want the CPU, the
// GUI wins, so the window stays responsive on a busy machine.

namespace strata {

/** On a job's thread: lowers its priority (threads it starts inherit it). Linux only. */
void yieldToTheGui();

}  // namespace strata
