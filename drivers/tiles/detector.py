"""Tile detectors: an image in, tiles with boxes and confidences out.

The detector is pluggable: :class:`OnnxTileDetector` runs any YOLOv8-style ONNX export (input
``[1, 3, S, S]`` float RGB in 0..1, output ``[1, 4 + classes, anchors]`` of centre-x, centre-y,
width, height and one score per class), so a venue can drop in a model trained on its own tiles
by naming its path and its class names (mjai) in the config.

The default is the model shipped in the ``mahjong-detector`` wheel (ssttkkl/mahjong-detector,
MIT): 34 classes named ``1m..9s`` plus ``tou nan sha pe haku hatsu chun``, trained on grey,
auto-contrasted images letterboxed to 640×640 on black — this module reproduces that
preprocessing (``mahjong_detector/preprocess.py``) rather than calling the package's
``detect_tiles``, to keep its boxes and confidences and to choose the threshold ourselves. It does
not tell red fives from plain ones. Its accuracy on composed frames is in docs/tiles.md: modest,
which is why camera reads are evidence with a confidence, never truth.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from numpy.typing import NDArray

from drivers.tiles.detection import Detection, TileDetector
from drivers.tiles.errors import DetectorError
from rules.tiles import Kind, TileError

Frame = NDArray[np.uint8]  # H × W × 3, RGB

#: mahjong-detector's class names → mjai
_DEFAULT_NAMES: Final = {"tou": "E", "nan": "S", "sha": "W", "pe": "N",
                         "haku": "P", "hatsu": "F", "chun": "C"}

Preprocess = Literal["gray-autocontrast", "rgb"]

__all__ = ["Detection", "OnnxTileDetector", "TileDetector", "default_model", "load_detector",
           "parse_classes"]


def _letterbox(frame: Frame, size: int, preprocess: Preprocess) -> tuple[NDArray[np.float32],
                                                                         float, int, int]:
    from PIL import Image, ImageOps

    img = Image.fromarray(frame)
    if preprocess == "gray-autocontrast":
        img = ImageOps.autocontrast(img.convert("L"))
    h, w = frame.shape[:2]
    scale = size / max(w, h)
    sw, sh = int(w * scale), int(h * scale)
    pad_x, pad_y = (size - sw) // 2, (size - sh) // 2
    canvas = Image.new(img.mode, (size, size), 0)
    canvas.paste(img.resize((sw, sh), Image.Resampling.BILINEAR), (pad_x, pad_y))
    arr = np.asarray(canvas.convert("RGB"), dtype=np.float32) / 255.0
    return arr.transpose(2, 0, 1)[np.newaxis, ...], scale, pad_x, pad_y


def _nms(boxes: NDArray[np.float64], scores: NDArray[np.float64], iou: float) -> list[int]:
    order = list(np.argsort(-scores, kind="stable"))
    keep: list[int] = []
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order:
        i = order.pop(0)
        keep.append(int(i))
        if not order:
            break
        rest = np.array(order)
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.maximum(0.0, xx2 - xx1) * np.maximum(0.0, yy2 - yy1)
        overlap = inter / np.maximum(area[i] + area[rest] - inter, 1e-9)
        order = [int(j) for j, o in zip(rest, overlap) if o <= iou]
    return keep


class OnnxTileDetector:
    def __init__(
        self,
        model_path: Path,
        classes: Sequence[Kind],
        *,
        preprocess: Preprocess = "gray-autocontrast",
        min_confidence: float = 0.25,
        iou: float = 0.5,
        threads: int = 2,
    ) -> None:
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]
        except ImportError as exc:
            raise DetectorError(f"onnxruntime is needed for the camera detector: {exc}") from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        try:
            self._session: Any = ort.InferenceSession(
                str(model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own Fail/InvalidGraph/NoSuchFile types
            raise DetectorError(f"cannot load ONNX model {model_path}: {exc}") from exc
        inp = self._session.get_inputs()[0]
        out = self._session.get_outputs()[0]
        shape = list(inp.shape)
        square = len(shape) == 4 and isinstance(shape[2], int) and shape[2] == shape[3]
        if not square or shape[1] != 3:
            raise DetectorError(f"model {model_path}: input shape {shape}, expected [1, 3, S, S]")
        self.size: int = shape[2]
        self._input = inp.name
        rows = list(out.shape)[1] if len(out.shape) == 3 else None
        if isinstance(rows, int) and rows != 4 + len(classes):
            raise DetectorError(
                f"model {model_path} scores {rows - 4} classes but {len(classes)} names were given"
            )
        self.classes = tuple(classes)
        self.preprocess: Preprocess = preprocess
        self.min_confidence = min_confidence
        self.iou = iou
        self.model_path = model_path

    def detect(self, frame: Frame) -> list[Detection]:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise DetectorError(f"frame must be H×W×3 uint8 RGB, got {frame.shape} {frame.dtype}")
        tensor, scale, pad_x, pad_y = _letterbox(frame, self.size, self.preprocess)
        raw = np.asarray(self._session.run(None, {self._input: tensor})[0])
        if raw.ndim != 3 or raw.shape[1] != 4 + len(self.classes):
            raise DetectorError(f"model output shape {raw.shape}, expected "
                                f"[1, {4 + len(self.classes)}, anchors]")
        out = raw[0].astype(np.float64)
        scores = out[4:].T
        best = scores.argmax(axis=1)
        conf = scores.max(axis=1)
        mask = conf > self.min_confidence
        if not mask.any():
            return []
        xc, yc, bw, bh = out[:4, mask]
        h, w = frame.shape[:2]
        boxes = np.stack([
            ((xc - bw / 2 - pad_x) / scale).clip(0, w), ((yc - bh / 2 - pad_y) / scale).clip(0, h),
            ((xc + bw / 2 - pad_x) / scale).clip(0, w), ((yc + bh / 2 - pad_y) / scale).clip(0, h),
        ], axis=1)
        conf, best = conf[mask], best[mask]
        keep = _nms(boxes, conf, self.iou)  # class-agnostic: one tile, one box
        return [
            Detection(self.classes[int(best[i])], float(conf[i]),
                      (int(boxes[i, 0]), int(boxes[i, 1]), int(boxes[i, 2]), int(boxes[i, 3])))
            for i in keep
        ]


def default_model() -> tuple[Path, tuple[Kind, ...]]:
    """The model in the ``mahjong-detector`` wheel and its class names as kinds."""
    spec = importlib.util.find_spec("mahjong_detector")
    if spec is None or not spec.submodule_search_locations:
        raise DetectorError("the default camera detector needs the mahjong-detector package")
    path = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    names: list[str] = list(importlib.import_module("mahjong_detector.predict").CLASS_NAMES)
    return path, parse_classes([_DEFAULT_NAMES.get(n, n) for n in names])


def parse_classes(names: Sequence[str]) -> tuple[Kind, ...]:
    try:
        return tuple(Kind.from_mjai(n.strip()) for n in names)
    except TileError as exc:
        raise DetectorError(f"model class names: {exc}") from None


def load_detector(model: Path | None = None, classes: Sequence[str] | None = None,
                  **kwargs: Any) -> OnnxTileDetector:
    """The configured model, or the default one; ``classes`` are required with a model."""
    if model is None:
        path, kinds = default_model()
        if classes is not None:
            kinds = parse_classes(classes)
        return OnnxTileDetector(path, kinds, **kwargs)
    if classes is None:
        raise DetectorError(f"model {model} needs its class names (mjai, in output order)")
    return OnnxTileDetector(model, parse_classes(classes), **kwargs)
