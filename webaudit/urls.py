"""Top-level URLs: the dashboard (sites), checks, MWIM files for search engines, auth and the admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from sites.forms import LoginForm

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="sites:list", permanent=False)),
    # Browsers ask for /favicon.ico whatever the page says. Resolved per request: the static URL is only known
    # once the static files' manifest exists, which importing the URLs must not require.
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("login/", auth_views.LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("sites/", include("sites.urls")),
    path("checks/", include("checks.urls")),
    path("mwim/", include("mwim.urls")),
    path("watch/", include("watch.urls")),
    path("admin/", admin.site.urls),
]
