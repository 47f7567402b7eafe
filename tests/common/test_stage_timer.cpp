// log::StageTimer adds the time its scope took to the sum it was given, at the scope's
// end (sleep_for sleeps at least as long as asked: the bounds below cannot fail by timing).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/log.hpp"

TEST(StageTimer, AddsItsScopesTimeAtTheEnd) {
  double sum = 1.0;
  {
    const gatemap::log::StageTimer timing(sum);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(sum, 1.0);  // nothing added before the scope ends
  }
  EXPECT_GE(sum, 1.02);
  const double after_one = sum;
  {
    const gatemap::log::StageTimer timing(sum);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(sum, after_one + 0.01);  // added to, not replaced
}
