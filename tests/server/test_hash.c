/* test_hash.c - Check tests of the keyed hash (src/server/base/hash.h): the SipHash-2-4 reference
 * vectors, and what the cache, the pool and ETags rely on. */
#include "base/hash.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* SipHash-2-4 with key 00 01 .. 0f of the messages 00 01 .. (i-1), i = 0..63: the 64-bit outputs
 * of the reference implementation published with the paper. */
static const uint64_t vectors[64] = {
    0x726fdb47dd0e0e31u, 0x74f839c593dc67fdu, 0x0d6c8009d9a94f5au, 0x85676696d7fb7e2du, 0xcf2794e0277187b7u,
    0x18765564cd99a68du, 0xcbc9466e58fee3ceu, 0xab0200f58b01d137u, 0x93f5f5799a932462u, 0x9e0082df0ba9e4b0u,
    0x7a5dbbc594ddb9f3u, 0xf4b32f46226bada7u, 0x751e8fbc860ee5fbu, 0x14ea5627c0843d90u, 0xf723ca908e7af2eeu,
    0xa129ca6149be45e5u, 0x3f2acc7f57c29bdbu, 0x699ae9f52cbe4794u, 0x4bc1b3f0968dd39cu, 0xbb6dc91da77961bdu,
    0xbed65cf21aa2ee98u, 0xd0f2cbb02e3b67c7u, 0x93536795e3a33e88u, 0xa80c038ccd5ccec8u, 0xb8ad50c6f649af94u,
    0xbce192de8a85b8eau, 0x17d835b85bbb15f3u, 0x2f2e6163076bcfadu, 0xde4daaaca71dc9a5u, 0xa6a2506687956571u,
    0xad87a3535c49ef28u, 0x32d892fad841c342u, 0x7127512f72f27cceu, 0xa7f32346f95978e3u, 0x12e0b01abb051238u,
    0x15e034d40fa197aeu, 0x314dffbe0815a3b4u, 0x027990f029623981u, 0xcadcd4e59ef40c4du, 0x9abfd8766a33735cu,
    0x0e3ea96b5304a7d0u, 0xad0c42d6fc585992u, 0x187306c89bc215a9u, 0xd4a60abcf3792b95u, 0xf935451de4f21df2u,
    0xa9538f0419755787u, 0xdb9acddff56ca510u, 0xd06c98cd5c0975ebu, 0xe612a3cb9ecba951u, 0xc766e62cfcadaf96u,
    0xee64435a9752fe72u, 0xa192d576b245165au, 0x0a8787bf8ecb74b2u, 0x81b3e73d20b49b6fu, 0x7fa8220ba3b2eceau,
    0x245731c13ca42499u, 0xb78dbfaf3a8d83bdu, 0xea1ad565322a1a0bu, 0x60e61c23a3795013u, 0x6606d7e446282b93u,
    0x6ca4ecb15c5f91e1u, 0x9f626da15c9625f3u, 0xe51b38608ef25f57u, 0x958a324ceb064572u,
};

static nq_hash_key reference_key(void)
{
    unsigned char k[16];
    for (unsigned i = 0; i < sizeof k; i++) k[i] = (unsigned char)i;
    return nq_hash_key_from_bytes(k);
}

START_TEST(test_reference_vectors)
{
    const nq_hash_key key = reference_key();
    unsigned char msg[64];
    for (unsigned i = 0; i < sizeof msg; i++) msg[i] = (unsigned char)i;
    const size_t len = (size_t)_i;
    ck_assert_msg(nq_hash_bytes(&key, msg, len) == vectors[_i], "message of %zu bytes", len);
}
END_TEST

/* The same bytes at any alignment hash alike (the words are read byte by byte). */
START_TEST(test_unaligned)
{
    const nq_hash_key key = reference_key();
    unsigned char buf[64 + 8];
    for (size_t off = 1; off < 8; off++) {
        for (unsigned i = 0; i < 63; i++) buf[off + i] = (unsigned char)i;
        ck_assert(nq_hash_bytes(&key, buf + off, 63) == vectors[63]);
    }
}
END_TEST

START_TEST(test_key_layout)
{
    const nq_hash_key key = reference_key();
    ck_assert(key.k0 == 0x0706050403020100u);
    ck_assert(key.k1 == 0x0f0e0d0c0b0a0908u);
    ck_assert(nq_hash_bytes(&key, NULL, 0) == vectors[0]);
}
END_TEST

/* Two random keys differ (2^-128 to fail by chance), and a different key gives a different hash. */
START_TEST(test_random_keys)
{
    nq_hash_key a, b;
    nq_hash_key_random(&a);
    nq_hash_key_random(&b);
    ck_assert(a.k0 != b.k0 || a.k1 != b.k1);
    ck_assert(nq_hash_bytes(&a, "count:8", 7) != nq_hash_bytes(&b, "count:8", 7));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hash");
    TCase *tc = tcase_create("siphash");
    tcase_add_loop_test(tc, test_reference_vectors, 0, 64);
    tcase_add_test(tc, test_unaligned);
    tcase_add_test(tc, test_key_layout);
    tcase_add_test(tc, test_random_keys);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
