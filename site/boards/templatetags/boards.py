from functools import lru_cache

from django import template
from django.utils.safestring import mark_safe

import games
from boards import svg

register = template.Library()


@lru_cache(maxsize=None)
def _tripen_poses():
    board = games.get("tripen").new(size=5).to_dict()["board"]
    return mark_safe(svg.pose_chart(board, "a1"))


@register.simple_tag
def tripen_pose_chart():
    """`{% tripen_pose_chart %}`: the six numbered poses of a Tripen token."""
    return _tripen_poses()
