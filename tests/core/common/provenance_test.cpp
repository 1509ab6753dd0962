// When and where a record was written (common/provenance.h), against the C library directly.

#include "common/provenance.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <regex>
#include <string>

namespace strata {
namespace {

TEST(Provenance, UtcNowIsTheCurrentSecondInIso8601) {
  const std::time_t before = std::time(nullptr);
  const std::string now = utcNow();
  const std::time_t after = std::time(nullptr);
  ASSERT_TRUE(std::regex_match(now, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << now;
  std::tm parsed{};
  ASSERT_NE(strptime(now.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parsed), nullptr);
  const std::time_t stamped = timegm(&parsed);  // read back as UTC, not local time
  EXPECT_GE(stamped, before);
  EXPECT_LE(stamped, after);
}

TEST(Provenance, HostNameIsTheKernelsAndTheFallbackOnlyWithoutOne) {
  char expected[256] = {};
  ASSERT_EQ(::gethostname(expected, sizeof expected - 1), 0);
  if (expected[0] == '\0') {
    EXPECT_EQ(hostName(), "unknown");
    EXPECT_EQ(hostName("localhost"), "localhost");
  } else {
    EXPECT_EQ(hostName(), expected);
    EXPECT_EQ(hostName("localhost"), expected);
  }
}

}  // namespace
}  // namespace strata
