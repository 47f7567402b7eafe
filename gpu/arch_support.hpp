#pragma once
// Which of a build's kernels a card runs: `gatemap version` names it for every GPU it sees,
// so a user learns before a run whether the binary suits the card.
#include <string>

namespace gatemap::gpu {

// For a card of compute capability major.minor and a build's architecture list (CMake's
// CUDA_ARCHITECTURES: "70-real;80-real;90", "none" without CUDA): "sm_XY cubin" (machine
// code of the same major, at most its minor), "compute_XY PTX, compiled when loaded" (a
// virtual architecture at most its own), or "none" (the card cannot run this build).
std::string kernels_for(int major, int minor, const std::string& architectures);

}  // namespace gatemap::gpu
