"""tpusim.sweep, search and fidelity: one row per point, each row what a run of that point reports."""
import glob
import unittest

import tpusim


class SweepTest(unittest.TestCase):
    def test_each_row_is_the_run_of_its_point(self):
        points = tpusim.sweep("lm-s2-layout")
        self.assertEqual(len(points), 6)
        self.assertIn("mesh.shape", points.columns)
        self.assertEqual(points.attrs["context"]["command"], "sweep")
        for _, point in points.iloc[[0, 5]].iterrows():
            alone = tpusim.run("lm-s2", mesh__shape=point["mesh.shape"], mesh__mapping=point["mesh.mapping"])
            self.assertEqual(point["step_time.step_time_s"], alone.step_time_s)
            self.assertEqual(point["config.cores"], 32)

    def test_overrides_change_every_point(self):
        points = tpusim.sweep({"base": "lm-s-1", "vary": {"model.d_ff": [1024, 2048]}}, model__layers=2)
        self.assertEqual(list(points["model.d_ff"]), ["1024", "2048"])
        for _, point in points.iterrows():
            alone = tpusim.run("lm-s-1", model__layers=2, model__d_ff=int(point["model.d_ff"]))
            self.assertEqual(point["step_time.step_time_s"], alone.step_time_s)


class SearchTest(unittest.TestCase):
    def test_the_best_row_is_the_fastest_that_fits(self):
        candidates = tpusim.search("lm-s1", max_candidates=12, seed=3)
        self.assertEqual(len(candidates), candidates.attrs["evaluated"])
        fitting = candidates[candidates["status"] == "fits"]
        best = candidates[candidates["best"]]
        self.assertEqual(len(best), 1)
        self.assertEqual(best["step_time_s"].iloc[0], fitting["step_time_s"].min())
        self.assertEqual(best["mesh_shape"].iloc[0], candidates.attrs["best"]["mesh_shape"])
        self.assertTrue(candidates["pareto"].any())

    def test_weight_sharding_modes_are_searched_and_named_per_row(self):
        # The first 12 candidates: each mesh and layout with replicated weights, then fully sharded ones.
        candidates = tpusim.search("lm-s1", max_candidates=12, strategy="exhaustive",
                                   weight_sharding=["none", "full"])
        self.assertEqual(set(candidates["weight_sharding"]), {"none", "full"})
        self.assertEqual(set(candidates["pipeline_stages"]), {1})
        self.assertEqual(candidates.attrs["spec"]["weight_sharding"], ["none", "full"])
        self.assertEqual(int(candidates["best"].sum()), 1 if (candidates["status"] == "fits").any() else 0)


class FidelityTest(unittest.TestCase):
    def test_a_row_per_shipped_measurement_and_the_error_computed_by_hand(self):
        table = tpusim.fidelity(jobs=2)
        shipped = glob.glob("workloads/fidelity/measurements/*.yaml")
        self.assertEqual(len(table), len(shipped))
        for _, row in table.iterrows():
            by_hand = row["predicted_step_s"] / row["measured_step_s"] - 1
            self.assertAlmostEqual(row["relative_error"], by_hand, delta=1e-9)
        errors = sorted(abs(table["relative_error"]))
        middle = len(errors) // 2
        median = errors[middle] if len(errors) % 2 else (errors[middle - 1] + errors[middle]) / 2
        self.assertAlmostEqual(table.attrs["summary"]["median_abs_error"], median, delta=1e-12)


if __name__ == "__main__":
    unittest.main()
