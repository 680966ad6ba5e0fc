"""Pure helpers the panels draw with: palette, number formats, ns -> px geometry, scene building.

No widget lives here and nothing keeps model state; what needs no Qt at all is tested without it.
"""
