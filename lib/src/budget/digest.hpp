// Internal to the ledger: the digests that protect a ledger file, computed by
// OpenSSL's libcrypto (a maintained implementation, not our own).
//
// sha256_hex detects accidents only: anyone who edits a file can recompute
// it. hmac_sha256_hex (RFC 2104 over SHA-256) needs the key, so a file edited
// without the key no longer matches its tag.
#pragma once

#include <string>

namespace fdp::detail {

/// SHA-256 of the bytes (FIPS 180-4), lowercase hex.
std::string sha256_hex(const std::string& bytes);

/// HMAC-SHA256 of the bytes under `key` (RFC 2104), lowercase hex. Throws
/// std::invalid_argument when the key is empty.
std::string hmac_sha256_hex(const std::string& key, const std::string& bytes);

/// Compares two digests in time independent of where they differ (a tag
/// check must not tell an attacker how many leading characters were right).
bool digest_equal(const std::string& a, const std::string& b);

}  // namespace fdp::detail
