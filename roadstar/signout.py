"""/logout/: signing out stays a POST with its CSRF token (a link or an image elsewhere can't sign the owner out),
and a GET (a typed or bookmarked address) answers a page with the Sign out button instead of a blank 405."""

from django.contrib.auth.views import LogoutView
from django.shortcuts import render


class SignOutView(LogoutView):
    http_method_names = ["get", "post", "options"]

    def get(self, request, *args, **kwargs):
        return render(request, "signout.html", {"signed_in": request.user.is_authenticated})
