"""The shipped assets: every file is listed with its source and licence, and a model naming
store files compiles from memory, survives a save as XML, and passes the suite-file checks."""

from __future__ import annotations

import io

import mujoco
import numpy as np
import pytest
from PIL import Image

from recallbench.benchmarks.scenemem.model_files import safe_model_xml
from recallbench.errors import SuiteRefusal
from recallbench.world import asset_store


def test_every_shipped_asset_has_source_and_licence() -> None:
    manifests = asset_store.manifests()
    listed = set()
    for family, manifest in manifests.items():
        for file, entry in manifest["assets"].items():
            path = asset_store.ASSET_ROOT / family / file
            assert path.is_file(), f"{family}/{file} listed, absent"
            assert entry.get("source"), f"{family}/{file}: no source"
            assert entry.get("licence") or manifest.get("licence"), f"{family}/{file}: no licence"
            listed.add(asset_store.store_name(family, file))
    shipped = set(asset_store.asset_bytes())
    assert shipped <= listed, f"shipped but not in a manifest: {sorted(shipped - listed)}"


def _png() -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.full((4, 4, 3), 200, np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def test_store_names_compile_and_pass_the_file_checks(tmp_path, monkeypatch) -> None:
    name = asset_store.store_name("objects", "probe.png")
    monkeypatch.setitem(asset_store.asset_bytes(), name, _png())
    spec = mujoco.MjSpec()
    asset_store.use_store(spec)
    mat = asset_store.add_textured_material(spec, "probe", "objects", "probe.png")
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[1, 1, 1], material=mat)
    spec.compile()
    xml = spec.to_xml()
    assert name in xml  # the saved model names the asset, it does not embed a path
    assert asset_store.model_from_xml(xml).ntex == 1
    env = tmp_path / "scn" / "env"
    env.mkdir(parents=True)
    assert safe_model_xml(xml, env / "model.xml") == xml  # served from memory, left alone
    with pytest.raises(SuiteRefusal):  # a file the store does not serve is still checked
        safe_model_xml(xml.replace(name, "/etc/passwd"), env / "model.xml")
