// cpu_quota.cpp: the cgroup CPU limit (cpu_quota.hpp). Reads, in the process's own cgroup and
// each ancestor up to the mount point (a limit set on a parent holds for its children, and a
// container sees its own cgroup as the root of the mount):
//  - cgroup v2: <mount><path>/cpu.max, "QUOTA PERIOD" in microseconds or "max PERIOD";
//  - cgroup v1: <mount of the cpu controller><path>/cpu.cfs_quota_us and cpu.cfs_period_us.
// Any file that is missing or unreadable means no limit from that file; nothing here throws.
#include "cpu_quota.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace wick::cpu {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n\r") - first + 1);
}

std::optional<long long> parse_integer(std::string_view text) {
  text = trim(text);
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void keep_tightest(std::optional<double>& limit, std::optional<double> candidate) {
  if (candidate && (!limit || *candidate < *limit)) limit = candidate;
}

// cgroup_dir, then each ancestor of it up to mount (cgroup_dir starts with mount).
std::vector<std::string> self_and_ancestors(const std::string& mount, std::string path) {
  std::vector<std::string> dirs;
  while (!path.empty() && path != "/") {
    dirs.push_back(mount + path);
    path.resize(path.rfind('/'));
  }
  dirs.push_back(mount);
  return dirs;
}

}  // namespace

std::optional<double> parse_cpu_max(std::string_view text) {
  text = trim(text);
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota = text.substr(0, space);
  if (quota == "max") return std::nullopt;
  return parse_cfs_quota(quota, text.substr(space + 1));
}

std::optional<double> parse_cfs_quota(std::string_view quota, std::string_view period) {
  const auto q = parse_integer(quota), p = parse_integer(period);
  if (!q || !p || *q <= 0 || *p <= 0) return std::nullopt;
  return static_cast<double>(*q) / static_cast<double>(*p);
}

std::optional<double> cgroup_cpu_limit(const std::string& root) {
  const auto cgroups = read_file(root + "/proc/self/cgroup");
  if (!cgroups) return std::nullopt;
  std::optional<double> limit;
  std::istringstream lines(*cgroups);
  std::string line;
  while (std::getline(lines, line)) {
    // "hierarchy-ID:controller-list:cgroup-path"
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {  // cgroup v2
      for (const auto& dir : self_and_ancestors(root + "/sys/fs/cgroup", path)) {
        if (const auto text = read_file(dir + "/cpu.max"))
          keep_tightest(limit, parse_cpu_max(*text));
      }
      continue;
    }
    std::istringstream names(controllers);
    std::string name;
    bool has_cpu = false;
    while (std::getline(names, name, ',')) has_cpu = has_cpu || name == "cpu";
    if (!has_cpu) continue;
    // v1: the controller is mounted under its list's name ("cpu,cpuacct"), often also as "cpu".
    for (const std::string& mount :
         {root + "/sys/fs/cgroup/" + controllers, root + "/sys/fs/cgroup/cpu"}) {
      for (const auto& dir : self_and_ancestors(mount, path)) {
        const auto quota = read_file(dir + "/cpu.cfs_quota_us");
        const auto period = read_file(dir + "/cpu.cfs_period_us");
        if (quota && period) keep_tightest(limit, parse_cfs_quota(*quota, *period));
      }
    }
  }
  return limit;
}

int threads_for_cpu_limit(double cpus) {
  return static_cast<int>(std::clamp(std::ceil(cpus), 1.0, 1e6));
}

int cgroup_thread_limit() {
  const auto cpus = cgroup_cpu_limit();
  return cpus ? threads_for_cpu_limit(*cpus) : 0;
}

}  // namespace wick::cpu
