import unittest

import numpy as np

import migraphx
from pytest_util import run_tests


class ShapeTest(unittest.TestCase):
    def test_standard(self):
        s = migraphx.shape(type="float_type", lens=[2, 3, 4])
        self.assertEqual(s.lens(), [2, 3, 4])
        self.assertEqual(s.strides(), [12, 4, 1])
        self.assertEqual(s.elements(), 24)
        self.assertEqual(s.bytes(), 96)
        self.assertEqual(s.type_size(), 4)
        self.assertEqual(s.ndim(), 3)
        self.assertEqual(s.type(), migraphx.shape.float_type)
        self.assertEqual(s.type_string(), "float_type")
        self.assertTrue(s.standard())
        self.assertTrue(s.packed())
        self.assertFalse(s.transposed())
        self.assertFalse(s.broadcasted())
        self.assertFalse(s.scalar())
        self.assertEqual(str(s), "float_type, {2, 3, 4}, {12, 4, 1}")

    def test_strided(self):
        t = migraphx.shape(type="float", lens=[2, 3], strides=[1, 2])
        self.assertTrue(t.transposed())
        self.assertFalse(t.standard())
        self.assertTrue(t.packed())
        b = migraphx.shape(type="half_type", lens=[2, 3], strides=[0, 1])
        self.assertTrue(b.broadcasted())
        self.assertEqual(b.type_size(), 2)
        self.assertEqual(b.bytes(), 6)
        sc = migraphx.shape(type="int64_type", lens=[4, 5], strides=[0, 0])
        self.assertTrue(sc.scalar())
        self.assertEqual(sc.index(7), 0)

    def test_types(self):
        for name, size in [("bool_type", 1), ("half_type", 2), ("double_type", 8), ("uint8_type", 1),
                           ("int8_type", 1), ("int32_type", 4), ("int64_type", 8), ("uint64_type", 8)]:
            s = migraphx.shape(type=name, lens=[3])
            self.assertEqual(s.type_string(), name)
            self.assertEqual(s.type_size(), size)
        self.assertEqual(migraphx.shape(type=migraphx.shape.int32_type, lens=[1]).type_string(), "int32_type")
        self.assertEqual(migraphx.shape(type=np.float64, lens=[1]).type_string(), "double_type")

    def test_equality(self):
        a = migraphx.shape(type="float_type", lens=[2, 3])
        self.assertEqual(a, migraphx.shape(type="float_type", lens=[2, 3], strides=[3, 1]))
        self.assertNotEqual(a, migraphx.shape(type="float_type", lens=[3, 2]))
        self.assertNotEqual(a, migraphx.shape(type="half_type", lens=[2, 3]))
        self.assertEqual(hash(a), hash(migraphx.shape(type="float_type", lens=[2, 3])))

    def test_errors(self):
        with self.assertRaises(RuntimeError) as e:
            migraphx.shape(type="no_such_type", lens=[1])
        self.assertIn("no_such_type", str(e.exception))
        with self.assertRaises(migraphx.exception):
            migraphx.shape(type="float_type", lens=[2, 3], strides=[1])


if __name__ == "__main__":
    run_tests()
