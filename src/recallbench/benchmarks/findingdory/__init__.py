"""benchmarks/findingdory"""
