// OrderedLanes: items written in the order read however the lanes race, never more
// items alive than slots, a lane's or the reader's error stops everything, and a lane
// holding items gets none it cannot take (no deadlock with few slots).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/ordered_lanes.hpp"

using gatemap::OrderedLanes;

namespace {

struct Item {
  int value = -1;
  int squared = -1;
};

// Reads 0..n-1; each lane works on two items at once, as the mapper does (starts the
// next, then finishes the current), sleeping a random while to race the others.
std::vector<int> run_lanes(int n, int lanes, size_t slots, std::atomic<int>* alive_max = nullptr) {
  std::atomic<int> alive{0};
  int next_value = 0;
  OrderedLanes<Item> pipeline(slots, [&](Item& item) {
    if (next_value == n) return false;
    item.value = next_value++;
    const int now = ++alive;
    if (alive_max && now > *alive_max) *alive_max = now;
    return true;
  });
  std::vector<int> written;
  const auto lane = [&](int i) {
    std::mt19937 rng(static_cast<unsigned>(i));
    const auto work = [&](Item* item) {
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
      item->squared = item->value * item->value;
      pipeline.done(item);
    };
    Item* cur = pipeline.next(false);
    while (cur) {
      Item* next = pipeline.next(true);
      work(cur);
      cur = next ? next : pipeline.next(false);
    }
  };
  pipeline.run(lanes, lane, [&](Item& item) {
    EXPECT_EQ(item.squared, item.value * item.value);
    written.push_back(item.value);
    --alive;
  });
  return written;
}

}  // namespace

TEST(OrderedLanes, WritesEveryItemInReadOrder) {
  for (const int lanes : {1, 2, 5}) {
    for (const size_t slots : {size_t{1}, size_t{2}, size_t{3}, size_t{16}}) {
      const std::vector<int> written = run_lanes(300, lanes, slots);
      ASSERT_EQ(written.size(), 300u) << lanes << " lanes, " << slots << " slots";
      for (int i = 0; i < 300; ++i) ASSERT_EQ(written[i], i);
    }
  }
}

TEST(OrderedLanes, NoMoreItemsAliveThanSlots) {
  std::atomic<int> alive_max{0};
  run_lanes(500, 4, 6, &alive_max);
  EXPECT_LE(alive_max.load(), 6);
  EXPECT_GE(alive_max.load(), 2);
}

TEST(OrderedLanes, EmptyInputWritesNothing) { EXPECT_TRUE(run_lanes(0, 3, 4).empty()); }

TEST(OrderedLanes, ALanesErrorStopsTheRunAndIsRethrown) {
  int value = 0;
  OrderedLanes<Item> pipeline(4, [&](Item& item) {
    item.value = value++;
    return true;  // endless input: the error must stop the reader
  });
  int written = 0;
  const auto lane = [&](int) {
    while (Item* item = pipeline.next(false)) {
      if (item->value == 50) throw std::runtime_error("bad item 50");
      pipeline.done(item);
    }
  };
  try {
    pipeline.run(3, lane, [&](Item&) { ++written; });
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "bad item 50");
  }
  EXPECT_LE(written, 50);
}

TEST(OrderedLanes, TheReadersErrorIsRethrown) {
  int value = 0;
  OrderedLanes<Item> pipeline(2, [&](Item& item) {
    if (value == 7) throw std::runtime_error("line 29: bad record");
    item.value = value++;
    return true;
  });
  std::vector<int> written;
  const auto lane = [&](int) {
    while (Item* item = pipeline.next(false)) pipeline.done(item);
  };
  EXPECT_THROW(pipeline.run(2, lane, [&](Item& item) { written.push_back(item.value); }), std::runtime_error);
  for (size_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i], static_cast<int>(i));
}

TEST(OrderedLanes, TheWritersErrorIsRethrown) {
  int value = 0;
  OrderedLanes<Item> pipeline(3, [&](Item& item) {
    item.value = value++;
    return value < 1000;
  });
  const auto lane = [&](int) {
    while (Item* item = pipeline.next(false)) pipeline.done(item);
  };
  EXPECT_THROW(pipeline.run(2, lane,
                            [&](Item& item) {
                              if (item.value == 10) throw std::runtime_error("disk full");
                            }),
               std::runtime_error);
}

TEST(OrderedLanes, ALaneThatKeepsAnItemIsAnError) {
  int value = 0;
  OrderedLanes<Item> pipeline(8, [&](Item& item) {
    item.value = value++;
    return value <= 5;
  });
  const auto lane = [&](int) {
    while (Item* item = pipeline.next(false)) {
      if (item->value != 2) pipeline.done(item);
    }
  };
  EXPECT_THROW(pipeline.run(1, lane, [](Item&) {}), std::logic_error);
}

// start() runs the pipeline while the caller goes on (here: it releases the writer, which
// waits for it); wait() gives the run's error.
TEST(OrderedLanes, StartedInTheBackgroundItWritesInOrderAndGivesItsError) {
  for (const bool fail : {false, true}) {
    int value = 0;
    OrderedLanes<Item> pipeline(4, [&](Item& item) {
      item.value = value++;
      return value <= 200;
    });
    std::atomic<bool> released{false};
    std::vector<int> written;
    pipeline.start(
        3,
        [&](int) {
          while (Item* item = pipeline.next(false)) pipeline.done(item);
        },
        [&](Item& item) {
          while (!released) std::this_thread::yield();
          if (fail && item.value == 50) throw std::runtime_error("disk full");
          written.push_back(item.value);
        });
    released = true;
    const std::exception_ptr error = pipeline.wait();
    EXPECT_EQ(error != nullptr, fail);
    ASSERT_EQ(written.size(), fail ? 50u : 200u);
    for (size_t i = 0; i < written.size(); ++i) EXPECT_EQ(written[i], static_cast<int>(i));
  }
}

// A pipeline destroyed while started (its owner gave up) stops and joins.
TEST(OrderedLanes, DestroyedWhileStartedItStops) {
  int value = 0;
  auto pipeline = std::make_unique<OrderedLanes<Item>>(4, [&](Item& item) {
    item.value = value++;
    return true;  // endless
  });
  OrderedLanes<Item>& lanes = *pipeline;  // (reset() nulls the pointer before destroying)
  lanes.start(
      2,
      [&](int) {
        while (Item* item = lanes.next(false)) lanes.done(item);
      },
      [](Item&) {});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  pipeline.reset();
  SUCCEED();
}
