"""The README's Python block runs as shown, and says what it returns."""
import re
import unittest


class ReadmeTest(unittest.TestCase):
    def test_the_readme_python_block_runs(self):
        with open("README.md") as file:
            blocks = re.findall(r"```python\n(.*?)```", file.read(), re.S)
        self.assertEqual(len(blocks), 1, "the README shows one Python block")
        names = {}
        exec(compile(blocks[0], "README.md's Python block", "exec"), names)
        import pandas
        import tpusim
        self.assertIsInstance(names["run"], tpusim.RunResult)
        for table in ("points", "rings", "candidates"):
            self.assertIsInstance(names[table], pandas.DataFrame, table)
            self.assertGreater(len(names[table]), 0, table)


if __name__ == "__main__":
    unittest.main()
