from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from roadstar import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.home, name="home"),
    path("changes/<uuid:change_id>/undo", views.change_undo, name="change_undo"),
    path("cards/<uuid:card_id>/dismiss", views.card_dismiss, name="card_dismiss"),
]
