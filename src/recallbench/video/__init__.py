"""video"""
