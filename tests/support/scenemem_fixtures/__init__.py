"""Helpers for the SceneMem harness tests: a tiny real MuJoCo env, policies, writers."""
