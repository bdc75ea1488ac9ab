"""Real LeRobot checkpoint folders for the LeRobot-lane tests: a tiny ACT policy with random
weights saved by lerobot's own ``save_pretrained`` (no download), and its processors (imported on
use: only .venv-lerobot has lerobot)."""

from __future__ import annotations

from pathlib import Path


def save_act(folder: Path, features: dict[str, tuple[str, tuple[int, ...]]],
             action_dim: int) -> Path:
    import torch
    from lerobot.configs.types import FeatureType, PolicyFeature
    from lerobot.policies.act.configuration_act import ACTConfig
    from lerobot.policies.act.modeling_act import ACTPolicy

    torch.manual_seed(0)
    config = ACTConfig(
        input_features={k: PolicyFeature(FeatureType[t], s) for k, (t, s) in features.items()},
        output_features={"action": PolicyFeature(FeatureType.ACTION, (action_dim,))},
        pretrained_backbone_weights=None, chunk_size=8, n_action_steps=4, dim_model=32,
        n_heads=2, dim_feedforward=64, n_encoder_layers=1, n_decoder_layers=1, use_vae=False,
        device="cpu")
    ACTPolicy(config).save_pretrained(folder)
    return folder


def save_processors(folder: Path) -> Path:
    """The folder's pre/post-processors as lerobot writes them (policy_preprocessor.json with
    registered steps and a normalizer state file), from zero-mean unit-std statistics."""
    import torch
    from lerobot.configs.policies import PreTrainedConfig
    from lerobot.policies.factory import make_pre_post_processors

    config = PreTrainedConfig.from_pretrained(str(folder))
    features = {**config.input_features, **config.output_features}
    stats = {name: {"mean": torch.zeros(f.shape), "std": torch.ones(f.shape)}
             for name, f in features.items()}
    pre, post = make_pre_post_processors(config, dataset_stats=stats)
    pre.save_pretrained(folder)
    post.save_pretrained(folder)
    return folder
