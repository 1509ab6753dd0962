#include <algorithm>

#include "common/job.h"
#include "engine/recipe.h"

namespace strata::engine {

TrainingMemoryPlan RecipeSetup::checkMemory(TrainingMemoryRequest need, int64_t batch,
                                            int64_t sequenceLength, JobContext& job) const {
  need.rows = std::max<int64_t>(batch / std::max(worldSize, 1), 1);
  need.sequenceLength = sequenceLength;
  need.bf16 = bf16;
  need.cuda = device.is_cuda();
  need.processes = processesHere;
  if (need.frozen) {
    need.frozen->cuda = need.cuda;
    // 0: the frozen model runs on the trained model's micro-batches.
    if (need.frozen->batchSequences <= 0) need.frozen->batchSequences = need.rows;
    if (need.frozen->sequenceLength <= 0) need.frozen->sequenceLength = sequenceLength;
  }
  const int deviceIndex = device.has_index() ? device.index() : 0;
  if (planOnly) {
    const TrainingMemoryPlan plan =
        planTrainingMemory(need, availableMemory(need.cuda, deviceIndex));
    job.info(plan.describe());
    throw PlanReached({plan.describe(), plan.fits, plan.fits ? "" : plan.refusal()});
  }
  return checkTrainingMemory(need, &job, deviceIndex);
}

}  // namespace strata::engine
