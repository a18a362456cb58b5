"""The rules, one module per concept, grouped by what they look at.

Importing a module registers nothing: `stoker.lint.registry` lists every rule class.
"""
