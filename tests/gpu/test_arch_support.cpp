// Which kernels of a build a card runs (gatemap version's "kernels:"), by CUDA's rules:
// a cubin runs on later minors of its major, PTX on any later card.
#include <gtest/gtest.h>

#include "gpu/arch_support.hpp"

using gatemap::gpu::kernels_for;

TEST(ArchSupport, EveryGenerationOfTheDefaultBuild) {
  const std::string defaults = "70-real;75-real;80-real;86-real;89-real;90";
  EXPECT_EQ(kernels_for(7, 0, defaults), "sm_70 cubin");   // V100
  EXPECT_EQ(kernels_for(7, 5, defaults), "sm_75 cubin");   // T4
  EXPECT_EQ(kernels_for(8, 0, defaults), "sm_80 cubin");   // A100
  EXPECT_EQ(kernels_for(8, 6, defaults), "sm_86 cubin");   // A10
  EXPECT_EQ(kernels_for(8, 9, defaults), "sm_89 cubin");   // L4
  EXPECT_EQ(kernels_for(9, 0, defaults), "sm_90 cubin");   // H100
  EXPECT_EQ(kernels_for(10, 0, defaults), "compute_90 PTX, compiled when loaded");  // newer
}

TEST(ArchSupport, NarrowBuildsSayWhatTheyLack) {
  EXPECT_EQ(kernels_for(7, 5, "90"), "none");                // a T4 and a Hopper-only build
  EXPECT_EQ(kernels_for(8, 6, "80-real"), "sm_80 cubin");    // a later minor runs it
  EXPECT_EQ(kernels_for(8, 0, "86-real"), "none");           // an earlier one does not
  EXPECT_EQ(kernels_for(8, 0, "70-virtual"), "compute_70 PTX, compiled when loaded");
  EXPECT_EQ(kernels_for(9, 0, "none"), "none");              // a CPU-only build
}
