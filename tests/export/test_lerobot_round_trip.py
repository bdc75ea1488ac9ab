"""The LeRobot round trip with no map: a generated SceneMem suite exported with
``recallbench export --dataset-format lerobot``, ACT trained on it for two steps by lerobot's own
``lerobot-train`` console script (tiny dims, offline, no pretrained backbone), and the saved
checkpoint evaluated by ``recallbench scenemem --policy lerobot:FOLDER`` as it is: the export and
the loader share one naming (``benchmarks.scenemem.lerobot_features``). Runs in .venv-lerobot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from recallbench.benchmarks.scenemem import lerobot_features as naming
from recallbench.cli import main
from support.lerobot_export import export_lerobot
from support.policy_server import ENV, RECALLBENCH, run_records
from support.shared_cache import built_once

pytestmark = [pytest.mark.lerobot, pytest.mark.slow]
pytest.importorskip("lerobot.scripts.lerobot_train")

LEROBOT_TRAIN = str(Path(sys.executable).with_name("lerobot-train"))
# the smallest camera suite: one scenario, one task, 32 x 32 cameras recorded as observations
SUITE = ["generate", "scenemem", "--n", "1", "--seed", "5", "--tasks", "1", "--pick-place", "1",
         "--size", "32", "--workers", "1"]
TINY_ACT = ["--policy.type=act", "--policy.push_to_hub=false", "--policy.device=cpu",
            "--policy.pretrained_backbone_weights=null",  # ACTConfig: no ResNet download
            "--policy.dim_model=16", "--policy.n_heads=2", "--policy.dim_feedforward=32",
            "--policy.n_encoder_layers=1", "--policy.n_decoder_layers=1",
            "--policy.n_vae_encoder_layers=1", "--policy.chunk_size=4",
            "--policy.n_action_steps=4", "--steps=2", "--batch_size=2", "--num_workers=0",
            "--save_freq=2", "--eval_freq=0", "--wandb.enable=false",
            "--dataset.video_backend=pyav"]  # torchcodec finds no FFmpeg libraries here


@pytest.fixture(scope="module")
def camera_suite(tmp_path_factory) -> Path:
    def generate(out: Path) -> None:
        assert main([*SUITE, "--out", str(out)]) == 0

    return built_once(tmp_path_factory, "lr_round_trip_suite", generate)


def test_a_policy_lerobot_train_made_from_the_export_runs_with_no_map(camera_suite, tmp_path):
    export = tmp_path / "lr"
    assert export_lerobot(camera_suite, export, "--no-probes") == 0
    offline = {**ENV, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "WANDB_MODE": "disabled",
               "HF_HOME": str(tmp_path / "hf"), "TORCH_HOME": str(tmp_path / "torch")}
    train = subprocess.run(
        [LEROBOT_TRAIN, *TINY_ACT, f"--dataset.repo_id=recallbench/{export.name}",
         f"--dataset.root={export}", f"--output_dir={tmp_path / 'outputs' / 'train' / 'act'}"],
        cwd=tmp_path, env=offline, capture_output=True, text=True, timeout=1200)
    assert train.returncode == 0, train.stderr[-3000:]
    assert not any((tmp_path / "torch").rglob("*.pth"))  # no backbone weights were fetched
    checkpoint = tmp_path / "outputs/train/act/checkpoints/last/pretrained_model"
    config = json.loads((checkpoint / "config.json").read_text())
    # lerobot-train took the export's names as they are: the shared naming's features
    assert sorted(config["input_features"]) == sorted([*naming.CAMERAS, naming.STATE])
    assert config["output_features"][naming.ACTION]["shape"] == [len(naming.ACTION_NAMES)]
    # the checkpoint as lerobot-train saved it passes the folder check (no --trust-policy), and
    # runs with no obs_map
    steps = 6
    run = subprocess.run(
        [RECALLBENCH, "scenemem", "--data_dir", str(camera_suite), "--policy",
         f"lerobot:{checkpoint}", "--max-steps", str(steps), "--workers", "1",
         "--out", str(tmp_path / "results.json")],
        env=offline, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    records = run_records(tmp_path / "results_run")
    spec = json.loads(next(camera_suite.glob("combo_*/eval_spec.json")).read_text())
    assert len(records) == len(spec["tests"]) > 0  # every test recorded
    assert all(r["error"] is None and r["steps"] == steps for r in records.values()), records
    manifest = json.loads((tmp_path / "results_run" / "manifest.json").read_text())
    assert manifest["policy"]["obs_map"] == {} and manifest["policy"]["trusted"] is False
