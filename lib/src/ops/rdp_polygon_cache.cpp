#include "ops/rdp_polygon_cache.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "fdp/ops/rdp_tradeoff.hpp"

namespace fdp::kinds {

curve cached_rdp_polygon(const std::vector<double>& orders, const std::vector<double>& rdp) {
  using key = std::pair<std::vector<double>, std::vector<double>>;
  static std::mutex m;
  static std::map<key, curve> cache;
  key k{orders, rdp};
  {
    std::lock_guard<std::mutex> lock(m);
    const auto it = cache.find(k);
    if (it != cache.end()) return it->second;
  }
  curve c = rdp_tradeoff_lower(orders, rdp);  // (outside the lock: it may throw or take a while)
  std::lock_guard<std::mutex> lock(m);
  if (cache.size() >= 64) cache.clear();
  cache.emplace(std::move(k), c);
  return c;
}

}  // namespace fdp::kinds
