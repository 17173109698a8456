"""Players as people: an optional photo (size limits with clear pt/en errors), club and flag,
shown on the TV and the full overlay."""
from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation
from PIL import Image

from scoreboard.core.models import PHOTO_MAX_BYTES, Player

pytestmark = pytest.mark.django_db


def image(w: int, h: int, fmt: str = "PNG") -> SimpleUploadedFile:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (200, 30, 30)).save(buf, fmt)
    return SimpleUploadedFile(f"p.{fmt.lower()}", buf.getvalue(), content_type=f"image/{fmt.lower()}")


def errors(player: Player, lang: str) -> list[str]:
    with translation.override(lang):
        try:
            player.full_clean()
        except ValidationError as e:
            return e.message_dict.get("photo", [])
    return []


@pytest.mark.parametrize("upload, pt, en", [
    (lambda: image(3000, 200), "A foto tem 3000×200 pixels; cada lado deve ter de 64 a 2000 pixels.",
     "The photo is 3000×200 pixels; each side must be 64 to 2000 pixels."),
    (lambda: image(40, 40), "A foto tem 40×40 pixels; cada lado deve ter de 64 a 2000 pixels.",
     "The photo is 40×40 pixels; each side must be 64 to 2000 pixels."),
    (lambda: image(100, 100, "GIF"), "O arquivo não é uma imagem JPEG, PNG ou WebP.",
     "The file is not a JPEG, PNG or WebP image."),
    (lambda: SimpleUploadedFile("p.png", b"\x89PNG" + b"0" * (PHOTO_MAX_BYTES + 10)),
     f"A foto tem {(PHOTO_MAX_BYTES + 14) // 1024} KB; o máximo é 2048 KB.",
     f"The photo is {(PHOTO_MAX_BYTES + 14) // 1024} KB; the most is 2048 KB."),
])
def test_a_photo_out_of_limits_is_refused_with_a_clear_message(upload, pt, en):
    p = Player(name="Ana", photo=upload())
    assert pt in errors(p, "pt-br")
    p = Player(name="Ana", photo=upload())
    assert en in errors(p, "en")


def test_a_good_photo_club_and_flag_pass_and_show_on_tv_and_full_overlay(created, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    player = created.match.player_a
    player.photo = image(300, 300)
    player.club = "Clube Paulistano"
    player.country = "BR"
    player.full_clean()
    player.save()
    c = Client()
    tv = c.get(f"/matches/{created.match.pk}/tv/").content.decode()
    ana = tv.split('data-player="0"')[1].split('data-player="1"')[0]
    assert f'<img class="tv-photo" src="{player.photo.url}"' in ana
    assert "Clube Paulistano" in ana and '/static/flags/br.gif' in ana and 'alt="Brasil"' in ana
    ov = c.get(f"/matches/{created.match.pk}/overlay/?layout=full").content.decode()
    assert f'<img class="ov-photo" src="{player.photo.url}"' in ov and "Clube Paulistano" in ov
    r = c.get(player.photo.url)  # the app serves the uploaded photo
    assert r.status_code == 200 and b"".join(r.streaming_content)[:4] == b"\x89PNG"


def test_the_venue_card_shows_club_and_flag(created):
    from scoreboard.core.models import Player

    Player.objects.filter(pk=created.match.player_b_id).update(club="Sinuca Clube do Porto", country="PT")
    created.match.started_at = created.match.created_at
    created.match.save(update_fields=["started_at"])
    html = Client().get("/").content.decode()
    bia = html[html.index("Bia Lima") - 300:html.index("Bia Lima") + 200]
    assert '/static/flags/pt.gif' in bia and 'alt="Portugal"' in bia and "Sinuca Clube do Porto" in bia
