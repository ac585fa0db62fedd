#!/usr/bin/env python3
"""Tests of scripts/layers.py: the real tree passes; a copy of it with one forbidden import (or
one undeclared) planted fails, with the sentence that says why. `scripts/test.sh` runs it."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import layers  # noqa: E402


def copy_tree(dest):
    """Package.swift and every .swift file of the targets' folders: all the check reads."""
    shutil.copy(os.path.join(ROOT, "Package.swift"), dest)
    for top in ("Sources", "Tests", "bench"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".swift"):
                    rel = os.path.relpath(os.path.join(d, f), ROOT)
                    os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
                    shutil.copy(os.path.join(ROOT, rel), os.path.join(dest, rel))


def declare(root, target, dep):
    """Adds `dep` to `target`'s dependencies in the copy's Package.swift."""
    path = os.path.join(root, "Package.swift")
    with open(path) as f:
        text = f.read()
    pattern = r'(\.(?:target|executableTarget)\(name: "' + re.escape(target) + r'", dependencies: \[)'
    new, n = re.subn(pattern, r'\1"' + dep + '", ', text, count=1)
    if n == 0:
        new, n = re.subn(r'(\.target\(name: "' + re.escape(target) + r'")\)', r'\1, dependencies: ["' + dep + '"])', text, count=1)
    if n == 0:  # a target with a path and no dependencies
        new, n = re.subn(r'(\.target\(name: "' + re.escape(target) + r'"), path:', r'\1, dependencies: ["' + dep + '"], path:', text, count=1)
    assert n == 1, f"no target {target} to declare {dep} in"
    with open(path, "w") as f:
        f.write(new)


PLANTED = []


def plant(root, rel, line):
    """Writes one more file into a target's folder of the copy (removed after the test)."""
    path = os.path.join(root, rel)
    with open(path, "w") as f:
        f.write(line + "\n")
    PLANTED.append(path)


class LayersTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="layers-test-")
        copy_tree(cls.root)
        with open(os.path.join(cls.root, "Package.swift")) as f:
            cls.package = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def tearDown(self):
        while PLANTED:
            os.remove(PLANTED.pop())
        with open(os.path.join(self.root, "Package.swift"), "w") as f:
            f.write(self.package)

    def problems(self):
        return layers.check(self.root)[1]

    def assertFails(self, *fragments):
        problems = self.problems()
        hits = [p for p in problems if all(f in p for f in fragments)]
        self.assertTrue(hits, f"no violation saying {fragments!r}; got {problems!r}")
        return hits[0]

    def test_the_real_tree_passes(self):
        self.assertEqual(layers.check(ROOT)[1], [])
        run = subprocess.run([sys.executable, os.path.join(HERE, "layers.py")], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("every import declared, no forbidden edge", run.stdout)

    def test_a_copy_passes(self):
        self.assertEqual(self.problems(), [])

    def test_an_undeclared_import_fails(self):
        plant(self.root, "Sources/Storage/Planted.swift", "import Wire")
        p = self.assertFails("Sources/Storage/Planted.swift:1", "Storage imports Wire but Package.swift does not declare it")
        self.assertIn('add "Wire" to Storage\'s dependencies', p)

    def test_an_unused_declaration_fails(self):
        declare(self.root, "Storage", "Wire")
        self.assertFails('Storage declares "Wire" but none of its files imports it')

    def test_an_import_in_a_comment_or_a_string_does_not_count(self):
        plant(self.root, "Sources/Storage/Planted.swift",
              '// import Wire\n/* import Wire */\nlet script = """\nimport Wire\n"""\nlet s = "import Wire"')
        self.assertEqual(self.problems(), [])

    def edge(self, target, dep):
        """Plants `import dep` in `target` and declares it: a declared, forbidden edge."""
        plant(self.root, f"Sources/{target}/Planted.swift", f"import {dep}")
        declare(self.root, target, dep)

    def test_the_relay_may_not_reach_sealing_even_declared(self):
        self.edge("RelayServer", "Sealing")
        p = self.assertFails("RelayServer → Sealing", "RelayServer may not reach Sealing")
        self.assertIn("the relay forwards sealed frames it cannot open", p)
        # homebase-relay reaches it through RelayServer: the path says so.
        self.assertFails("homebase-relay → RelayServer → Sealing")
        run = subprocess.run([sys.executable, os.path.join(HERE, "layers.py"), "--root", self.root],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("RelayServer may not reach Sealing, because the relay forwards sealed frames", run.stdout)

    def test_every_forbidden_edge_fails_with_its_reason(self):
        cases = [
            ("PeerLink", "Courier", ["RelayProbe → PeerLink → Courier", "RelayProbe may not reach Courier"]),
            ("Basics", "Wire", ["Basics depends on Wire", "depends on no other module"]),
            ("Sealing", "Transport", ["Sealing → Transport", "Sealing knows no sockets"]),
            ("HomebaseAgent", "Routing", ["HomebaseAgent → Routing", "the two roles never see each other"]),
            ("GuestAgent", "HomebaseAgent", ["guest → GuestAgent → HomebaseAgent", "guest may not reach HomebaseAgent"]),
            ("Inference", "Routing", ["Inference → Routing", "Inference never chooses routes"]),
            ("LocalAPI", "CommandLineKit", ["LocalAPI → CommandLineKit", "libraries hold no command-line code"]),
            ("ModelStore", "CommandLineKit", ["ModelStore → CommandLineKit", "commands live in the executables"]),
        ]
        for target, dep, fragments in cases:
            with self.subTest(edge=f"{target} → {dep}"):
                self.edge(target, dep)
                self.assertFails(*fragments)
                self.tearDown()

    def test_the_pure_test_kit_links_no_relay(self):
        plant(self.root, "Tests/TestKit/Planted.swift", "import RelayServer")
        declare(self.root, "TestKit", "RelayServer")
        self.assertFails("TestKit depends on RelayServer", "TestKit is the pure test kit")

    def test_no_product_module_links_a_test_fixture(self):
        for fixture in ("NatsFixture", "EngineFixture"):
            with self.subTest(fixture=fixture):
                self.edge("HomebaseAgent", fixture)
                self.assertFails(f"HomebaseAgent → {fixture}", f"HomebaseAgent may not reach {fixture}",
                                 "a fixture is not shipped")
                self.tearDown()

    def test_the_codecs_import_nothing_but_what_is_below_them(self):
        plant(self.root, "Sources/RelayWire/Planted.swift", "import Foundation")
        self.assertFails("RelayWire imports Foundation", "it may import only Basics", "can do no I/O")
        self.tearDown()
        plant(self.root, "Sources/Wire/Planted.swift", "import Basics")
        self.assertFails("Wire imports Basics", "it may import only RelayWire", "can do no I/O")

    def test_the_relay_links_no_application_schema(self):
        # RelayServer importing Wire, declared: the relay would link adverts, inference, pairing.
        self.edge("RelayServer", "Wire")
        p = self.assertFails("RelayServer → Wire", "RelayServer may not reach Wire")
        self.assertIn("the relay links only the relay frames", p)
        self.assertIn("never Wire, whose application schemas", p)
        self.assertFails("homebase-relay → RelayServer → Wire")
        self.tearDown()
        # RelayProbe reaches it through PeerLink, the device link it drives.
        self.edge("PeerLink", "Wire")
        self.assertFails("RelayProbe → PeerLink → Wire", "RelayProbe may not reach Wire")

    def test_the_relay_reaches_no_box_or_aead_of_libsodium(self):
        # Signing is how the relay reaches CSodium: signatures pass, an AEAD does not.
        plant(self.root, "Sources/Signing/Planted.swift",
              "import CSodium\nfunc f() { _ = crypto_sign_verify_detached; _ = crypto_aead_xchacha20poly1305_ietf_decrypt }")
        p = self.assertFails("Signing calls crypto_aead_xchacha20poly1305_ietf_decrypt", "RelayServer reaches Signing")
        self.assertIn("never a box, an AEAD or a key exchange", p)
        self.assertFalse([x for x in self.problems() if "crypto_sign_verify_detached" in x])


if __name__ == "__main__":
    unittest.main(verbosity=1)
