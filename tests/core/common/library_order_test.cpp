// The wheel's libtorch.so exports statically linked copies of libstdc++'s std::filesystem
// functions; a program must bind to the system libstdc++'s (CMakeLists.txt links it first), or
// std::filesystem::remove_all crashes inside libtorch.so.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace strata {
namespace {

TEST(LibraryOrder, StdFilesystemComesFromTheSystemLibstdcxx) {
  using RemoveAll = std::uintmax_t (*)(const std::filesystem::path&, std::error_code&);
  const RemoveAll removeAll = &std::filesystem::remove_all;
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(removeAll), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  EXPECT_NE(std::string(info.dli_fname).find("libstdc++"), std::string::npos) << info.dli_fname;
}

}  // namespace
}  // namespace strata
