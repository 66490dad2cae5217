#pragma once
// Training or inference: the one Mode every planner and the lowering share (seed 000 Table 6 and
// seed 003 §V count forward, backward and update passes for training, forward only for inference).

namespace partsim::plan {

enum class Mode { training, inference };

}  // namespace partsim::plan
