"""The HTTP side of ``core.access``: a view decorator that asks the one permission layer.

A page whose rule refuses: an anonymous visitor is sent to the admin's log-in (as Django's
``staff_member_required`` did), a logged-in user gets a 403 saying so in Portuguese and English.
"""
from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseForbidden
from django.urls import reverse
from django.utils.deprecation import MiddlewareMixin

from ..core import access


FORBIDDEN = ("Seu usuário não tem um papel que permita isto (organizador, árbitro, transmissão ou federação "
             "deste objeto) / Your user has no role that allows this (organiser, referee, streamer or federation "
             "of this object)")


def forbidden() -> HttpResponseForbidden:
    """The 403 of a logged-in user whose roles do not allow the page."""
    return HttpResponseForbidden(FORBIDDEN, content_type="text/plain; charset=utf-8")


def required(rule: str, kwarg: str, obj=None):
    """Let the view run only when ``access.may(rule, <the request's actor>, kwargs[kwarg])``
    (``obj(kwargs[kwarg])`` when ``obj`` is given: the rule's object built from the URL's id)."""

    def decorate(view):
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs):
            actor = access.Actor.of_request(request)
            target = kwargs[kwarg] if obj is None else obj(kwargs[kwarg])
            if access.may(rule, actor, target):
                return view(request, *args, **kwargs)
            if actor.active_user is None:
                return redirect_to_login(request.get_full_path(), reverse("admin:login"))
            return forbidden()

        return wrapped

    return decorate


class RouteRuleMiddleware(MiddlewareMixin):
    """Refuse (403) a resolved route that ``core.access.ROUTES`` names no rule for: a URL added
    without a rule stays closed until it gets one (the route test says which)."""

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if access.rule_of(request.resolver_match) is None:
            raise PermissionDenied("route without a rule")
        return None
