def home(request):
    raise NotImplementedError


def change_undo(request, change_id):
    raise NotImplementedError


def card_dismiss(request, card_id):
    raise NotImplementedError
