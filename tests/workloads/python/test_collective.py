"""tpusim.collective against the alpha-beta closed form, written out here, on contention-free rings."""
import random
import unittest

import tpusim


def ring_allreduce_s(members, bytes_per_member, latency_s, bandwidth_Bps):
    """Unidirectional ring allreduce: p-1 reduce-scatter and p-1 allgather steps, each moving 1/p of the
    buffer over one link."""
    return 2 * (members - 1) * (latency_s + bytes_per_member / members / bandwidth_Bps)


class CollectiveTest(unittest.TestCase):
    def test_random_rings_equal_the_closed_form(self):
        rng = random.Random(30)
        for _ in range(6):
            members = rng.randint(2, 12)
            size = 4 * members * rng.randint(1, 65536)
            bandwidth_GBps = rng.choice([10, 62, 100])
            latency_us = rng.choice([0.5, 1, 5])
            topology = f"ring:{members},bw={bandwidth_GBps}GBps,lat={latency_us}us"
            table = tpusim.collective(op="allreduce", bytes=size, topology=topology, algorithm="ring")
            self.assertEqual(len(table), 1)
            row = table.iloc[0]
            expected = ring_allreduce_s(members, size, latency_us * 1e-6, bandwidth_GBps * 1e9)
            self.assertAlmostEqual(row["simulated_s"], expected, delta=1e-12 * expected, msg=topology)
            self.assertEqual(row["group_size"], members)

    def test_lists_give_one_row_per_combination_in_order(self):
        table = tpusim.collective(op="allreduce", bytes=["4KiB", "1MiB"], topology="torus:4x4",
                                  algorithm=["ring", "bidir_ring"])
        self.assertEqual(len(table), 4)
        self.assertEqual(list(table["algorithms"]), ["ring", "bidir_ring", "ring", "bidir_ring"])
        self.assertEqual(list(table["bytes"]), [4096, 4096, 2**20, 2**20])
        # Both directions of every link carry half the data: never slower than the one-way ring.
        for small, large in ((0, 1), (2, 3)):
            self.assertLessEqual(table["simulated_s"][large], table["simulated_s"][small])
        self.assertTrue((table["ratio_to_lower_bound"] >= 1 - 1e-9).all())

    def test_a_bad_size_is_bad_input(self):
        with self.assertRaises(tpusim.BadInput) as caught:
            tpusim.collective(bytes="3")
        self.assertIn("3", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
