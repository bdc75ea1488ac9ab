"""benchmarks/scenemem"""
