import os
import tempfile
import unittest

import numpy as np

import migraphx
from pytest_util import has_target, run_tests
from test_program import build_program


@unittest.skipUnless(hasattr(migraphx, "save"), "built without <migraphx/load_save.hpp>")
class LoadSaveTest(unittest.TestCase):
    x = np.array([[1, 2, 3], [-1, 0, 0.5]], dtype=np.float32)

    def test_uncompiled_roundtrip(self):
        p = build_program()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.mxr")
            migraphx.save(p, path)
            q = migraphx.load(path)
        self.assertEqual(str(p), str(q))
        self.assertFalse(q.is_compiled())

    def test_compiled_roundtrip_runs_without_compile(self):
        for t in [t for t in ("ref", "cpu") if has_target(t)]:
            with self.subTest(target=t):
                p = build_program()
                p.compile(migraphx.get_target(t))
                want = np.array(p.run({"x": self.x})[0])
                with tempfile.TemporaryDirectory() as d:
                    path = os.path.join(d, "p.mxr")
                    migraphx.save(p, path)
                    q = migraphx.load(path)
                self.assertTrue(q.is_compiled())
                self.assertEqual(q.target_name(), t)
                np.testing.assert_array_equal(np.array(q.run({"x": self.x})[0]), want)

    def test_buffers_and_json(self):
        p = build_program()
        data = migraphx.save_buffer(p)
        self.assertIsInstance(data, bytes)
        self.assertEqual(str(migraphx.load_buffer(data)), str(p))
        text = migraphx.save_buffer(p, format="json")
        self.assertEqual(str(migraphx.load_buffer(text, format="json")), str(p))

    def test_compile_options_are_saved(self):
        # compile's tf32 and exhaustive_tune keywords reach the program (kept in its file)
        for on in (False, True):
            p = build_program()
            p.compile(migraphx.get_target("ref"), tf32=on, exhaustive_tune=on)
            text = migraphx.save_buffer(p, format="json")
            text = text.decode() if isinstance(text, bytes) else text
            self.assertIn('"tf32":' + ("true" if on else "false"), text)
            self.assertIn('"exhaustive_tune":' + ("true" if on else "false"), text)

    def test_errors(self):
        with self.assertRaises(migraphx.exception):
            migraphx.load_buffer(b"\x00garbage")
        with self.assertRaises(migraphx.exception):
            migraphx.load("/nonexistent/dir/p.mxr")


if __name__ == "__main__":
    run_tests()
