#include "budget/digest.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace fdp::detail {

namespace {
std::string to_hex(const unsigned char* d, unsigned n) {
  static const char* digits = "0123456789abcdef";
  std::string out(2 * static_cast<std::size_t>(n), '0');
  for (unsigned i = 0; i < n; ++i) {
    out[2 * i] = digits[d[i] >> 4];
    out[2 * i + 1] = digits[d[i] & 15];
  }
  return out;
}
}  // namespace

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256: OpenSSL EVP_Digest failed");
  return to_hex(md, n);
}

std::string hmac_sha256_hex(const std::string& key, const std::string& bytes) {
  if (key.empty()) throw std::invalid_argument("hmac_sha256_hex: key: must not be empty");
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md, &n))
    throw std::runtime_error("HMAC-SHA256: OpenSSL HMAC failed");
  return to_hex(md, n);
}

bool digest_equal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace fdp::detail
