"""Shared helpers of the Python binding tests (plain unittest, run by CTest with PYTHONPATH set to
the build tree's python/ folder)."""

import sys
import unittest

SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests

import migraphx  # noqa: E402  (fails loudly when PYTHONPATH is wrong)


def has_target(name):
    return name in migraphx.get_targets()


def run_tests(require_gpu=False):
    """Runs the calling module's unittest cases; exit 77 when it needs a gpu that is not there."""
    if require_gpu and not (getattr(migraphx, "gpu_built", False) and has_target("gpu")):
        print("SKIPPED: no gpu target (built: %s, targets: %s)" % (migraphx.gpu_built, migraphx.get_targets()))
        sys.exit(SKIP)
    main = sys.modules["__main__"]
    suite = unittest.defaultTestLoader.loadTestsFromModule(main)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun == 0:
        sys.exit(1)
    if len(result.skipped) == result.testsRun:
        sys.exit(SKIP)
    sys.exit(0)
