"""tpusim.run: results, overrides and errors, against hand computations and the command line's own files."""
import fcntl
import os
import random
import signal
import tempfile
import threading
import time
import unittest

import tpusim


def lm_parameters(d_model, heads, d_kv, d_ff, layers, vocab):
    """The paper's parameter count of its Transformer LM, by hand: per layer the attention's four projections
    and the two feed-forward matrices, then the embedding and the softmax."""
    per_layer = 4 * d_model * heads * d_kv + 2 * d_model * d_ff
    return layers * per_layer + 2 * vocab * d_model


class RunTest(unittest.TestCase):
    def test_a_preset_reports_what_its_config_implies(self):
        result = tpusim.run("lm-s1")
        model = result.config["model"]
        self.assertEqual((model["d_model"], model["d_ff"], model["layers"]), (1024, 16384, 6))
        self.assertEqual(result.summary["paper_parameters"], lm_parameters(1024, 16, 256, 16384, 6, 32768))
        parts = result.breakdown
        self.assertAlmostEqual(result.step_time_s, parts["compute_s"] + parts["exposed_communication_s"]
                               + parts["idle_s"], delta=1e-12 * result.step_time_s)
        self.assertTrue(result.fits)
        self.assertEqual(result.summary["context"]["command"], "run")
        calls = result.collectives["calls"].sum()
        self.assertEqual(calls, result.summary["collective_calls_per_step"])
        self.assertIn("lm-s1", repr(result))

    def test_overrides_as_double_underscores_and_as_a_section_dict_set_the_same_key(self):
        d_ff = random.Random(29).choice([4096, 8192, 12288])
        by_key = tpusim.run("lm-s1", model__d_ff=d_ff)
        by_section = tpusim.run("lm-s1", model={"d_ff": d_ff})
        self.assertEqual(by_key.config["model"]["d_ff"], d_ff)
        self.assertEqual(by_key.summary["paper_parameters"], lm_parameters(1024, 16, 256, d_ff, 6, 32768))
        self.assertEqual(by_key.step_time_s, by_section.step_time_s)

    def test_a_dict_config_and_a_file_with_base_give_the_same_step(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "wide.yaml")
            with open(path, "w") as file:
                file.write("base: lm-s1\nmodel:\n  d_ff: 8192\n")
            from_file = tpusim.run(path)
        from_dict = tpusim.run({"base": "lm-s1", "model": {"d_ff": 8192}})
        self.assertEqual(from_file.step_time_s, from_dict.step_time_s)
        self.assertEqual(from_file.memory, from_dict.memory)

    def test_full_numerics_report_a_loss_per_step(self):
        result = tpusim.run("tiny-mlp", steps=5)
        self.assertEqual(list(result.steps["step"]), [0, 1, 2, 3, 4])
        losses = list(result.steps["loss"])
        self.assertLess(losses[-1], losses[0])

    def test_output_writes_the_result_files_and_none_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            here = os.getcwd()
            os.chdir(folder)
            try:
                tpusim.run("tiny-mlp", steps=1)
            finally:
                os.chdir(here)
            self.assertEqual(os.listdir(folder), [])
            target = os.path.join(folder, "out")
            tpusim.run("tiny-mlp", steps=1, output=target)
            self.assertTrue({"summary.json", "collectives.csv", "trace.json"} <= set(os.listdir(target)))


class RunErrorTest(unittest.TestCase):
    def test_a_bad_value_is_bad_input_naming_the_key(self):
        with self.assertRaises(tpusim.BadInput) as caught:
            tpusim.run("lm-s1", model__d_ff=-4)
        error = caught.exception
        self.assertEqual(error.status, 2)
        self.assertIsInstance(error, ValueError)
        self.assertIn("model.d_ff", error.message)
        self.assertNotIn("\n", str(error))
        self.assertIn("exit status 2: bad input", str(error))

    def test_an_unknown_preset_and_an_unknown_key_are_bad_input(self):
        with self.assertRaises(tpusim.BadInput) as preset:
            tpusim.run("no-such-preset")
        self.assertIn("no-such-preset", preset.exception.message)
        with self.assertRaises(tpusim.BadInput) as key:
            tpusim.run("lm-s1", model__d_fff=4096)
        self.assertIn("model.d_fff", key.exception.message)

    def test_a_model_over_its_hbm_raises_run_failed_with_its_result(self):
        with self.assertRaises(tpusim.RunFailed) as caught:
            tpusim.run("lm-s1", hardware__hbm_per_core="64MiB")
        failure = caught.exception
        self.assertEqual(failure.status, 1)
        self.assertIn("does not fit", failure.message)
        self.assertFalse(failure.result.fits)
        self.assertEqual(failure.result.memory["hbm_bytes"], 64 * 2**20)

    def test_a_results_folder_in_use_or_unwritable_is_an_environment_failure(self):
        with tempfile.TemporaryDirectory() as folder:
            blocker = os.path.join(folder, "file")
            open(blocker, "w").close()
            with self.assertRaises(tpusim.BadInput):  # a path under a file is the wrong kind of path
                tpusim.run("tiny-mlp", steps=1, output=os.path.join(blocker, "out"))
            # Another writer holds the folder's lock, as a second tpusim would.
            with open(os.path.join(folder, ".out.lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                with self.assertRaises(tpusim.EnvironmentFailure) as caught:
                    tpusim.run("tiny-mlp", steps=1, output=os.path.join(folder, "out"))
            self.assertEqual(caught.exception.status, 3)
            self.assertIsInstance(caught.exception, OSError)
            self.assertIn("in use by another tpusim", caught.exception.message)
            self.assertFalse(os.path.exists(os.path.join(folder, "out")))
            locked = os.path.join(folder, "locked")
            os.mkdir(locked, 0o500)
            if os.geteuid() != 0:  # root writes anywhere
                with self.assertRaises(tpusim.EnvironmentFailure):
                    tpusim.run("tiny-mlp", steps=1, output=os.path.join(locked, "out"))

    def test_a_config_name_is_checked_as_a_key_and_never_becomes_a_path(self):
        """A dict's name went into the temporary file's path: '../../victim' wrote two folders up."""
        at_root = f"/tpusim-victim-{os.getpid()}"
        with tempfile.TemporaryDirectory() as sandbox:
            nested = os.path.join(sandbox, "a", "b")
            os.makedirs(nested)
            saved = tempfile.tempdir
            tempfile.tempdir = nested
            try:
                for name in ["../../victim", at_root, "..", "a/b", "a\0b", "\ud800", ""]:
                    with self.subTest(name=repr(name)):
                        with self.assertRaises(tpusim.BadInput) as caught:
                            tpusim.run({"base": "tiny-mlp", "name": name})
                        self.assertEqual(caught.exception.status, 2)
                        self.assertIn("name", caught.exception.message)
            finally:
                tempfile.tempdir = saved
            written = sorted(os.path.relpath(os.path.join(folder, entry), sandbox)
                             for folder, folders, files in os.walk(sandbox) for entry in folders + files)
            self.assertEqual(written, ["a", os.path.join("a", "b")])
        self.assertFalse(os.path.exists(at_root + ".yaml"))

    def test_arguments_text_cannot_carry_is_bad_input(self):
        """A NUL cut an override where the command line read it; a lone surrogate raised TypeError."""
        for value in ["12\x008", "\ud800"]:
            with self.subTest(value=repr(value)):
                with self.assertRaises(tpusim.BadInput) as caught:
                    tpusim.run("tiny-mlp", steps=1, model__d_ff=value)
                self.assertEqual(caught.exception.status, 2)
                self.assertIn("model.d_ff", caught.exception.message)
        with self.assertRaises(tpusim.BadInput):
            tpusim.run("tiny-\x00mlp")

    def test_an_override_holding_a_line_break_is_one_value(self):
        """'128\\nfoo: 1' ran with d_ff 128: the text after the break was spliced into the config as YAML."""
        for value in ["128\nfoo: 1", "128\n---\n"]:
            with self.subTest(value=repr(value)):
                with self.assertRaises(tpusim.BadInput) as caught:
                    tpusim.run("tiny-mlp", steps=1, model__d_ff=value)
                self.assertIn("is not a whole number", caught.exception.message)
                self.assertNotIn("\n", caught.exception.message)

    def test_an_interrupt_ends_the_child_and_raises_at_once(self):
        """SIGINT to the interpreter alone (a notebook's "interrupt kernel") waited for the whole simulation."""
        def children():
            mine = []
            for entry in os.listdir("/proc"):
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if entry.isdigit() and int(fields[1]) == os.getpid() and fields[0] != "Z":
                    mine.append(int(entry))
            return mine

        signalled = []
        def interrupt():
            signalled.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        timer = threading.Timer(1.0, interrupt)
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                tpusim.run("tiny-lm", steps=100000, output=None)  # minutes of simulation uninterrupted
            raised = time.monotonic()
        finally:
            timer.cancel()
        self.assertEqual(len(signalled), 1)
        self.assertLess(raised - signalled[0], 1.0)
        self.assertEqual(children(), [])


        self.assertEqual(tpusim.errors.error_for(3, "m").meaning,
                         tpusim._tpusim.exit_statuses[3][1])
        self.assertIsInstance(tpusim.errors.error_for(1, "m"), tpusim.RunFailed)
        self.assertIsInstance(tpusim.errors.error_for(2, "m"), tpusim.BadInput)
        self.assertIsInstance(tpusim.errors.error_for(3, "m"), tpusim.EnvironmentFailure)


if __name__ == "__main__":
    unittest.main()
